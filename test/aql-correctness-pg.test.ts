// AQL correctness on a warehouse project (issue 22): every case of helpers/aql-correctness.ts,
// with the same data in a throwaway PostgreSQL 15 and the same expected answers.
import { correctnessSuite } from './helpers/aql-correctness.js';

correctnessSuite('postgres');
