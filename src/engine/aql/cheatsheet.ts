// AQL in brief, for AI assistants with SQL habits: the MCP resource ursa://aql/cheatsheet and
// the aql_help tool of MCP and the chat (CHEATSHEET), and after every AQL error they get, the
// rules that error is about (rulesFor). The rules name no model's objects (they follow errors in any project);
// every line of the examples starting with SELECT is a complete query on the demo project (a
// test runs them).

/**
 * The rules that fix most first attempts; they stand alone. `when`: what in an error's message
 * makes the rule worth repeating after it (rulesFor).
 */
const RULE_LIST: { text: string; when: RegExp }[] = [
  {
    text: '- Name model objects in brackets, by title or identifier, in any case: [<Title>]; get_model lists them.',
    when: /unknown object|brackets|ambiguous|no object|is a dataset|syntax/i,
  },
  {
    text: '- No FROM, JOIN or GROUP BY: the model finds the datasets and joins them; every item that is not aggregated is a dimension the rows are grouped by.',
    when: /\bFROM\b|\bJOIN\b|GROUP BY|dimension|neither|inside a calculation|reference path/i,
  },
  {
    text: '- Aggregate facts: SUM([<fact>]), AVG, MIN, MAX, MEDIAN, PERCENTILE([<fact>], 0.9), STDDEV. Count the rows of a dataset with COUNT([<dataset>]) (its name in brackets; there is no COUNT(*)); COUNT([<attribute>]) counts its distinct values, COUNT([<fact>]) the rows where the fact has a value. An aggregation of per-group values names the groups: AVG(SUM([<fact>]) BY [<attribute>]).',
    when: /COUNT|aggregat|is a fact|\*|nested|\bBY\b/i,
  },
  {
    text: '- Form: SELECT items [WHERE row condition] [HAVING measure condition] [QUALIFY window condition] [ORDER BY …] [LIMIT n [OFFSET m]]; LIMIT, not TOP.',
    when: /syntax|LIMIT|\bTOP\b|HAVING|QUALIFY|ORDER BY|WHERE|window/i,
  },
  {
    text: '- Aliases in double quotes: SUM([<fact>]) AS "Total"; strings in quotes, dates as "YYYY-MM-DD".',
    when: /syntax|alias|text|quote|date|string/i,
  },
  {
    text: "- Saved metrics are names too: [<Metric>]. Share of the total: [<Metric>] / (SELECT [<Metric>] BY ALL); the query's WHERE applies inside BY ALL and every sub-select too (a sub-select's own WHERE adds to it).",
    when: /metric|BY ALL|sub-select|share/i,
  },
];

const RULES = RULE_LIST.map((r) => r.text).join('\n');

const HEAD =
  'AQL in brief (the full cheatsheet: the aql_help tool, or the resource ursa://aql/cheatsheet):';

/** Every rule, as the cheatsheet starts. */
export const CHEATSHEET_HEAD = `${HEAD}\n${RULES}`;

/**
 * What follows an AQL error an assistant gets: the rules its message is about (the first two,
 * the commonest SQL habits, when none is), not the whole list every time.
 */
export function rulesFor(message: string): string {
  const hit = RULE_LIST.filter((r) => r.when.test(message));
  return [HEAD, ...(hit.length ? hit : RULE_LIST.slice(0, 2)).map((r) => r.text)].join('\n');
}

const BODY = `
Examples (demo flights project):
SELECT [Carrier Name], COUNT([flights]) AS "Flights", SUM([Distance]) AS "Miles" ORDER BY "Miles" DESC LIMIT 5
SELECT [Origin State], AVG([Departure Delay]) HAVING AVG([Departure Delay]) > 10 ORDER BY 2 DESC

What COUNT counts: COUNT([flights]) the rows of dataset flights (its identifier [dataset.flights] works too, should an
attribute or fact take the title "flights"); COUNT([Origin]), of an attribute, its distinct values (COUNT_DISTINCT is the same); COUNT([Departure Delay]),
of a fact, the rows where it has a value (a cancelled flight has none). COUNT([Origin], [flights]) counts distinct values
among the rows of another dataset.
SELECT COUNT([flights]) AS "Flights", COUNT([Departure Delay]) AS "Flights with a delay", COUNT([Origin]) AS "Origins"

Conditional aggregation: the share or number of rows that meet a condition.
SELECT [Carrier Name], AVG(CASE WHEN [Cancelled] THEN 1 ELSE 0 END) AS "Cancelled share", SUM(CASE WHEN [Departure Delay] > 15 THEN 1 ELSE 0 END) AS "Late flights"

Shares: BY ALL drops the dimensions but keeps the query's WHERE, so this is each carrier's share of the flights from CA:
SELECT [Carrier Name], COUNT([flights]) / (SELECT COUNT([flights]) BY ALL) AS "Share of CA flights" WHERE [Origin State] = "CA"
For a share of the unfiltered total, filter only the part in a sub-select (its WHERE applies to it alone):
SELECT [Carrier Name], (SELECT COUNT([flights]) WHERE [Origin State] = "CA") / (SELECT COUNT([flights]) BY ALL) AS "CA flights, share of all"
A sub-select keeps the query's WHERE and adds its own: with WHERE [Origin State] = "CA" this is the cancelled share of CA flights:
SELECT [Carrier Name], (SELECT COUNT([flights]) WHERE [Cancelled]) / COUNT([flights]) AS "Cancelled share in CA" WHERE [Origin State] = "CA"

Aggregations over groups: AGG(measure BY dimensions) computes the measure per group (within each result row), then
aggregates those values: SUM AVG MIN MAX MEDIAN PERCENTILE STDDEV, or COUNT (the groups where it has a value).
SELECT [Carrier Name], AVG(COUNT([flights]) BY [Flight Date]) AS "Flights per day", MAX(COUNT([flights]) BY [Flight Date]) AS "Busiest day"
SELECT COUNT(CASE WHEN YEAR(MIN([Flight Date])) = 2025 THEN 1 END BY [Origin], [Destination]) AS "Routes first flown in 2025"
The number of rows a breakdown has is a count of groups (run_aql's totalRows also gives it):
SELECT COUNT(COUNT([flights]) BY [Origin], [Destination]) AS "Routes flown"

A breakdown inside each row (its ORDER BY and LIMIT apply per row; the cell is a list of rows):
SELECT [Origin Region], COUNT([flights]) AS "Flights", NEST(SELECT [Origin State], COUNT([flights]) AS "Flights" ORDER BY 2 DESC LIMIT 3) AS "Top states"

Dates: YEAR, QUARTER, MONTH, WEEK, DAY(d); DATE_TRUNC("month", d) is a date dimension;
DATE_ADD("day", -30, TODAY()); DATE_DIFF("day", a, b); d + 7 and d - 7 move by days.
SELECT DATE_TRUNC("month", [Flight Date]) AS "Month", COUNT([flights]) WHERE [Flight Date] >= DATE_ADD("month", -3, "2025-01-31")

Windows over the result rows (after aggregation): f(measure) OVER ([PARTITION BY dims] [ORDER BY …] [frame]).
SUM AVG MIN MAX COUNT of a measure — SUM(SUM([Distance])), not SUM([Distance]) — and LAG, LEAD, RANK, DENSE_RANK,
ROW_NUMBER, FIRST_VALUE, LAST_VALUE. Frames: ROWS BETWEEN 2 PRECEDING AND CURRENT ROW. QUALIFY filters on
them (top N per group); HAVING runs before windows, so it cannot.
SELECT MONTH([Flight Date]) AS "Month", COUNT([flights]) AS "Flights", SUM(COUNT([flights])) OVER (ORDER BY MONTH([Flight Date])) AS "Running"
SELECT [Origin State], [Carrier Name], SUM([Distance]) QUALIFY RANK() OVER (PARTITION BY [Origin State] ORDER BY SUM([Distance]) DESC) <= 3

Functions: UPPER LOWER TRIM LENGTH LEFT RIGHT SUBSTRING CONCAT REPLACE, a || b; COALESCE NULLIF LEAST GREATEST;
ABS ROUND IFNULL; CASE WHEN … THEN … ELSE … END. Expressions of attributes are dimensions:
SELECT UPPER([Carrier Name]) || " (" || [Carrier Code] || ")" AS "Carrier", COUNT([flights])

Conditions: = <> < <= > >=, IN (…), BETWEEN a AND b, LIKE "pat%", ILIKE (any case), IS [NOT] NULL, AND OR NOT,
and saved filters by name.
SELECT [Carrier Name], COUNT([flights]) WHERE [Carrier Name] ILIKE "%air%" AND [Flight Date] BETWEEN "2024-01-01" AND "2024-03-31"

No rows? A text value that matches no member is listed in "warnings" with the closest members.
Errors say line and column, what was found and what fits (SQL is answered with the query in AQL);
get_model and search_objects list the objects, get_attribute_values the values of an attribute.`;

/** The whole cheatsheet (aql_help, ursa://aql/cheatsheet): it points on to the reference only. */
export const CHEATSHEET = `AQL cheatsheet (the complete reference is /docs/aql.md on this server)
${RULES}
${BODY}`;
