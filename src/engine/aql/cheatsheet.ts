// AQL in brief, for AI assistants with SQL habits: the MCP resource ursa://aql/cheatsheet and
// the aql_help tool of MCP and the chat (CHEATSHEET), and the tail of every AQL error they get
// (CHEATSHEET_HEAD). The rules name no model's objects (they follow errors in any project);
// every line of the examples starting with SELECT is a complete query on the demo project (a
// test runs them).

/** The rules that fix most first attempts; they stand alone. */
const RULES = `- Name model objects in brackets, by title or identifier, in any case: [<Title>]; get_model lists them.
- No FROM, JOIN or GROUP BY: the model finds the datasets and joins them; every item that is not aggregated is a dimension the rows are grouped by.
- Aggregate facts: SUM([<fact>]), AVG, MIN, MAX, MEDIAN, PERCENTILE([<fact>], 0.9), STDDEV. Count the rows of a dataset with COUNT([<dataset>]) (its name in brackets; there is no COUNT(*)); COUNT([<attribute>]) counts its distinct values, COUNT([<fact>]) the rows where the fact has a value.
- Form: SELECT items [WHERE row condition] [HAVING measure condition] [QUALIFY window condition] [ORDER BY …] [LIMIT n [OFFSET m]]; LIMIT, not TOP.
- Aliases in double quotes: SUM([<fact>]) AS "Total"; strings in quotes, dates as "YYYY-MM-DD".
- Saved metrics are names too: [<Metric>]. Share of the total: [<Metric>] / (SELECT [<Metric>] BY ALL); the query's WHERE applies inside BY ALL and every sub-select too (a sub-select's own WHERE adds to it).`;

/** What follows every AQL error an assistant gets: the rules, and where the rest is. */
export const CHEATSHEET_HEAD = `AQL in brief (the full cheatsheet: the aql_help tool, or the resource ursa://aql/cheatsheet):
${RULES}`;

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
