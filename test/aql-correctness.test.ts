// AQL correctness (issue 4) on the embedded engine: every case of helpers/aql-correctness.ts
// against DuckDB datasets loaded from files.
import { correctnessSuite } from './helpers/aql-correctness.js';

correctnessSuite('duckdb');
