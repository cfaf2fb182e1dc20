// The web application's Admin and Model screens in Chromium against the real server (the
// demo's data loaded): an Admin invites, changes and removes members (the API's messages
// shown at the field, the last Admin kept), sets the WebDAV token and embedding, reads usage
// and activity; a User Admin gets Members but no Settings; a plain member has no Admin screen
// and browses the model down to a metric's AQL, dependencies and history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { launch, otherThan, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { waitForDemo } from './helpers/aql-demo.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const MEMBER = 'model-reader@example.com';
const USER_ADMIN = 'people@example.com';
const PASSWORD = 'app-admin-password-1';
const CA = '[Origin State] = "CA"';

/** The text of the elements an input names with aria-describedby. */
async function description(page: Page, input: Locator): Promise<string> {
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ');
}

describe.skipIf(skipBrowser)('the web application: Admin and Model', () => {
  let s: TestServer;
  let browser: Browser;
  let P: string;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    P = `/projects/${s.demo}`;
    const [b] = await Promise.all([launch(), waitForDemo(s)]);
    browser = b;
    const r = await s.api('POST', `${P}/pmd/obj`, {
      body: [
        {
          type: 'metric',
          name: 'Total Distance',
          description: 'Miles flown, every flight counted once.',
          def: { aql: 'SELECT SUM([Distance])', format: '#,##0' },
        },
        {
          type: 'report',
          name: 'Distance by carrier',
          def: {
            aql: 'SELECT [Carrier Name], [Total Distance]',
            visualization: { type: 'bar' },
          },
        },
      ],
    });
    expect(r.status, r.text).toBe(201);
    const put = await s.api('PUT', `${P}/pmd/obj/metric.total_distance`, {
      body: {
        name: 'Total Distance',
        description: 'Miles flown by every flight.',
        def: { aql: 'SELECT SUM([Distance])', format: '#,##0' },
      },
    });
    expect(put.status, put.text).toBe(200);
    await invite(s, s.demo, MEMBER);
    await invite(s, s.demo, USER_ADMIN, { useradmin: true, filter: CA });
    for (const u of [MEMBER, USER_ADMIN]) await s.engine.accounts.setPassword(u, PASSWORD);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('lets an Admin invite a member with a role and a row filter, change and remove them', async () => {
    const NEW = 'analyst@example.com';
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${s.demo}`,
    );
    try {
      await page
        .getByRole('navigation', { name: 'Project' })
        .getByRole('link', { name: 'Admin' })
        .click();
      expect(new URL(page.url()).pathname).toBe(`/app/p/${s.demo}/admin`);
      const form = page.getByRole('form', { name: 'Invite a member' });
      // An Admin is offered every level.
      expect(await form.getByRole('checkbox').count()).toBe(4);
      await form.getByRole('textbox', { name: 'E-mail' }).fill(NEW);
      await form.getByRole('textbox', { name: 'Roles' }).fill('sales');
      await form.getByRole('textbox', { name: 'Row filter' }).fill(CA);
      await form.getByRole('checkbox', { name: /^MD Admin/ }).check();
      await form.getByRole('button', { name: 'Invite' }).click();
      await form.getByRole('status').getByText(`${NEW} was invited.`).waitFor();
      const card = page.getByRole('listitem', { name: NEW, exact: true });
      await card.getByText(CA).waitFor();
      expect(await card.textContent()).toMatch(/MD Admin.*Roles\s*sales/);
      let r = await s.api('GET', `${P}/users/${NEW}`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.user).toMatchObject({
        roles: ['sales'],
        filter: CA,
        mdadmin: true,
        admin: false,
        active: true,
      });
      await screenshots(page, 'admin-members');

      // An invalid row filter: the API's 400 at the field, nothing stored.
      await form.getByRole('textbox', { name: 'E-mail' }).fill('nobody@example.com');
      await form.getByRole('textbox', { name: 'Row filter' }).fill('[Nope] = 1');
      await form.getByRole('button', { name: 'Invite' }).click();
      const filter = form.getByRole('textbox', { name: 'Row filter' });
      await form.getByText(/unknown object \[Nope\]/).waitFor();
      expect(await filter.getAttribute('aria-invalid')).toBe('true');
      expect(await description(page, filter)).toMatch(/invalid row-level filter: unknown object/);
      expect((await s.api('GET', `${P}/users/nobody@example.com`)).status).toBe(404);

      // Change: a bad filter is refused at the field, a good one saved with the new role.
      await card.getByRole('button', { name: 'Change' }).click();
      const edit = card.getByRole('form', { name: `Change ${NEW}` });
      await edit.getByRole('textbox', { name: 'Roles' }).fill('sales, ops');
      await edit.getByRole('textbox', { name: 'Row filter' }).fill('[Origin State] = ');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.getByRole('alert').waitFor();
      expect(
        await edit.getByRole('textbox', { name: 'Row filter' }).getAttribute('aria-invalid'),
      ).toBe('true');
      await edit.getByRole('textbox', { name: 'Row filter' }).fill('[Origin State] = "NY"');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await card.getByRole('status').getByText('Changes saved.').waitFor();
      r = await s.api('GET', `${P}/users/${NEW}`);
      expect(r.json.user).toMatchObject({
        roles: ['sales', 'ops'],
        filter: '[Origin State] = "NY"',
      });

      // The last Admin cannot leave: the API's 409 is shown on their card.
      const mine = page.getByRole('listitem', { name: ADMIN, exact: true });
      await mine.getByRole('button', { name: 'Leave the project' }).click();
      await mine.getByRole('button', { name: 'Leave', exact: true }).click();
      await mine
        .getByRole('alert')
        .getByText(/last Admin/)
        .waitFor();
      await mine.getByRole('button', { name: 'Cancel' }).click();

      // Remove, after confirming.
      await card.getByRole('button', { name: 'Remove' }).click();
      await card.getByRole('button', { name: 'Remove', exact: true }).click();
      await card.waitFor({ state: 'detached' });
      expect((await s.api('GET', `${P}/users/${NEW}`)).status).toBe(404);
      expect(otherThan(problems, 400, 409)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows an Admin the settings, usage as bars, and the activity by kind', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${s.demo}/admin/settings`,
    );
    try {
      const dav = page.getByRole('form', { name: 'WebDAV token' });
      await dav.getByText('No token is set').waitFor();
      await dav.getByRole('button', { name: 'Generate one' }).click();
      await dav.getByRole('button', { name: 'Set the token' }).click();
      await dav.getByText('A token is set.').waitFor();
      expect((await s.api('GET', P)).json.project.webdavTokenSet).toBe(true);
      await dav.getByRole('button', { name: 'Clear the token' }).click();
      await dav.getByText('No token is set').waitFor();
      expect((await s.api('GET', P)).json.project.webdavTokenSet).toBe(false);

      const embed = page.getByRole('form', { name: 'Dashboard embedding' });
      await embed.getByRole('checkbox').check();
      await embed.getByLabel('Sites that may embed').fill('https://a.example.com/page');
      await embed.getByRole('button', { name: 'Save' }).click();
      await embed.getByRole('alert').waitFor();
      await embed.getByLabel('Sites that may embed').fill('HTTPS://Intranet.example.com:443');
      await embed.getByRole('button', { name: 'Save' }).click();
      await embed.getByText('Embedding settings saved.').waitFor();
      const project = (await s.api('GET', P)).json.project;
      expect(project.dashboardEmbedding).toBe(true);
      expect(project.embedOrigins).toEqual(['https://intranet.example.com']);
      await screenshots(page, 'admin-settings');
      await expect
        .poll(() => embed.getByLabel('Sites that may embed').inputValue())
        .toBe('https://intranet.example.com');

      await page
        .getByRole('navigation', { name: 'Admin' })
        .getByRole('link', { name: 'Usage' })
        .click();
      const storage = page.getByRole('meter', { name: 'Storage' });
      await storage.waitFor();
      expect(await storage.getAttribute('aria-valuemax')).toBe(String(1024 ** 3));
      expect(Number(await storage.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
      expect(await storage.getAttribute('aria-valuetext')).toMatch(/ MB of 1 GB \(/);
      const rows = page.getByRole('meter', { name: 'Dataset rows' });
      expect(Number(await rows.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
      expect(await page.getByRole('meter').count()).toBe(8);
      await page.getByRole('meter', { name: 'E-mails today' }).waitFor();
      await screenshots(page, 'admin-usage');

      await page
        .getByRole('navigation', { name: 'Admin' })
        .getByRole('link', { name: 'Activity' })
        .click();
      await page.getByRole('table', { name: 'Activity' }).waitFor();
      await page.getByRole('checkbox', { name: 'Member changes' }).check();
      await page.waitForURL((u) => u.searchParams.get('types') === 'user_action');
      await page.getByRole('cell', { name: `invited ${USER_ADMIN}` }).waitFor();
      const kinds = page.locator('table.activity tbody td.kind');
      await expect
        .poll(async () => [...new Set(await kinds.allTextContents())])
        .toEqual(['Member changes']);
      await screenshots(page, 'admin-activity');
      expect(otherThan(problems, 400)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('gives a User Admin Members without Settings, offering only their own level', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      USER_ADMIN,
      PASSWORD,
      `/app/p/${s.demo}/admin`,
    );
    try {
      const tabs = page.getByRole('navigation', { name: 'Admin' });
      await tabs.getByRole('link', { name: 'Members' }).waitFor();
      expect(await tabs.getByRole('link').allTextContents()).toEqual([
        'Members',
        'Usage',
        'Activity',
      ]);
      const form = page.getByRole('form', { name: 'Invite a member' });
      const levels = await form.locator('fieldset input[type=checkbox]').count();
      expect(levels).toBe(1);
      await form.getByRole('checkbox', { name: /^User Admin/ }).waitFor();
      // The Admin holds a level the User Admin lacks: no controls on their card.
      const admin = page.getByRole('listitem', { name: ADMIN, exact: true });
      await admin.getByText(/only an Admin can change them/).waitFor();
      expect(await admin.getByRole('button').count()).toBe(0);

      await page.goto(`${s.url}/app/p/${s.demo}/admin/settings`);
      await page
        .getByRole('alert')
        .getByText(/Only the project’s Admins/)
        .waitFor();

      // Their own row filter hides the dataset rows.
      await page.goto(`${s.url}/app/p/${s.demo}/admin/usage`);
      const rows = page.getByRole('meter', { name: 'Dataset rows' });
      await rows.waitFor();
      expect(await rows.getAttribute('aria-valuetext')).toMatch(/^hidden/);
      expect(await rows.getAttribute('aria-valuenow')).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('has no Admin screen for a plain member, who browses the model to a metric', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MEMBER,
      PASSWORD,
      `/app/p/${s.demo}`,
    );
    try {
      const nav = page.getByRole('navigation', { name: 'Project' });
      await nav.getByRole('link', { name: 'Model' }).waitFor();
      expect(await nav.getByRole('link').allTextContents()).not.toContain('Admin');
      await page.goto(`${s.url}/app/p/${s.demo}/admin`);
      await page.getByRole('alert').getByText('There is no such screen in this project.').waitFor();

      await page.goto(`${s.url}/app/p/${s.demo}/model`);
      const attributes = page.getByRole('table', { name: 'Attributes' });
      await attributes.waitFor();
      for (const name of ['Carrier Code', 'Origin State', 'Flight Date'])
        await attributes.getByRole('link', { name, exact: true }).waitFor();
      const types = page.getByRole('navigation', { name: 'Object types' });
      await types.getByRole('link', { name: /^Attributes 19$/ }).waitFor();
      await screenshots(page, 'model-list');
      await types.getByRole('link', { name: /^Metrics/ }).click();
      await page
        .getByRole('table', { name: 'Metrics' })
        .getByRole('link', { name: 'Total Distance' })
        .click();
      await page.getByRole('heading', { name: 'Total Distance', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/app/p/${s.demo}/model/metric.total_distance`);
      expect(await page.getByLabel('AQL', { exact: true }).textContent()).toBe(
        'SELECT SUM([Distance])',
      );
      await page.getByText('#,##0', { exact: true }).waitFor();
      const uses = page.locator('section', { has: page.getByRole('heading', { name: 'Uses' }) });
      const usedBy = page.locator('section', {
        has: page.getByRole('heading', { name: 'Used by' }),
      });
      await uses.getByRole('link', { name: 'Distance' }).waitFor();
      await usedBy.getByRole('link', { name: 'Distance by carrier' }).waitFor();
      await screenshots(page, 'model');

      // An older revision, then a dependency by its link.
      await page.getByRole('link', { name: 'Revision 1' }).click();
      await page.getByText('Miles flown, every flight counted once.').waitFor();
      await page.getByRole('link', { name: 'See it as it is now' }).click();
      await page.getByText('Miles flown by every flight.').waitFor();
      await usedBy.getByRole('link', { name: 'Distance by carrier' }).click();
      await page.getByRole('heading', { name: 'Distance by carrier', level: 1 }).waitFor();
      await expect
        .poll(() => page.getByLabel('AQL', { exact: true }).textContent())
        .toBe('SELECT [Carrier Name], [Total Distance]');

      // Search.
      await page.getByRole('link', { name: 'Model', exact: true }).first().click();
      await page.getByRole('searchbox', { name: 'Search the model' }).fill('distance');
      await page.getByRole('button', { name: 'Search' }).click();
      const results = page.getByRole('table', { name: 'Search results' });
      await results.getByRole('link', { name: 'Total Distance' }).waitFor();
      expect(new URL(page.url()).searchParams.get('q')).toBe('distance');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
