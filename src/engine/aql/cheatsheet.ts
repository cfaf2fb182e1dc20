// AQL in brief, for AI assistants with SQL habits: the MCP resource ursa://aql/cheatsheet,
// the aql_help tool of MCP and the chat, and (its head) the tail of every AQL error they get.
// Every line starting with SELECT is a complete query on the demo project (a test runs them).

/** The rules that fix most first attempts; they stand alone. */
export const CHEATSHEET_HEAD = `AQL in brief (full cheatsheet: aql_help, or resource ursa://aql/cheatsheet):
- Name model objects in brackets: [Origin State], [Distance]; titles or identifiers, any case.
- No FROM, JOIN or GROUP BY: the model finds the datasets; every non-aggregated item is a dimension the rows are grouped by.
- Aggregate facts: SUM([Distance]), AVG, MIN, MAX, MEDIAN, PERCENTILE([x], 0.9), STDDEV; COUNT([Flight]) counts a key (there is no COUNT(*)); COUNT([Origin]) counts distinct values.
- Form: SELECT items [WHERE row condition] [HAVING measure condition] [QUALIFY window condition] [ORDER BY …] [LIMIT n [OFFSET m]]; LIMIT, not TOP.
- Aliases in double quotes: SUM([Distance]) AS "Miles"; strings in quotes, dates as "YYYY-MM-DD".
- Saved metrics are names too: [Revenue]; share of total: [Revenue] / (SELECT [Revenue] BY ALL).`;

const BODY = `
Examples (demo flights project):
SELECT [Carrier Name], COUNT([Flight]) AS "Flights", SUM([Distance]) AS "Miles" ORDER BY "Miles" DESC LIMIT 5
SELECT [Origin State], AVG([Departure Delay]) HAVING AVG([Departure Delay]) > 10 ORDER BY 2 DESC
SELECT [Carrier Name], COUNT([Flight]) / (SELECT COUNT([Flight]) BY ALL) AS "Share"

Dates: YEAR, QUARTER, MONTH, WEEK, DAY(d); DATE_TRUNC("month", d) is a date dimension;
DATE_ADD("day", -30, TODAY()); DATE_DIFF("day", a, b); d + 7 and d - 7 move by days.
SELECT DATE_TRUNC("month", [Flight Date]) AS "Month", COUNT([Flight]) WHERE [Flight Date] >= DATE_ADD("month", -3, "2025-01-31")

Windows over the result rows (after aggregation): f(measure) OVER ([PARTITION BY dims] [ORDER BY …] [frame]).
SUM AVG MIN MAX COUNT of a measure — SUM(SUM([x])), not SUM([x]) — and LAG, LEAD, RANK, DENSE_RANK,
ROW_NUMBER, FIRST_VALUE, LAST_VALUE. Frames: ROWS BETWEEN 2 PRECEDING AND CURRENT ROW. QUALIFY filters on
them (top N per group); HAVING runs before windows, so it cannot.
SELECT MONTH([Flight Date]) AS "Month", COUNT([Flight]) AS "Flights", SUM(COUNT([Flight])) OVER (ORDER BY MONTH([Flight Date])) AS "Running"
SELECT [Origin State], [Carrier Name], SUM([Distance]) QUALIFY RANK() OVER (PARTITION BY [Origin State] ORDER BY SUM([Distance]) DESC) <= 3

Functions: UPPER LOWER TRIM LENGTH LEFT RIGHT SUBSTRING CONCAT REPLACE, a || b; COALESCE NULLIF LEAST GREATEST;
ABS ROUND IFNULL; CASE WHEN … THEN … ELSE … END. Expressions of attributes are dimensions:
SELECT UPPER([Carrier Name]) || " (" || [Carrier Code] || ")" AS "Carrier", COUNT([Flight])

Conditions: = <> < <= > >=, IN (…), BETWEEN a AND b, LIKE "pat%", ILIKE (any case), IS [NOT] NULL, AND OR NOT,
and saved filters by name.
SELECT [Carrier Name], COUNT([Flight]) WHERE [Carrier Name] ILIKE "%air%" AND [Flight Date] BETWEEN "2024-01-01" AND "2024-03-31"

No rows? A text value that matches no member is listed in "warnings" with the closest members.
Errors say line and column, what was found and what fits; get_model and search_objects list the objects.`;

export const CHEATSHEET = `${CHEATSHEET_HEAD}\n${BODY}`;
