// npm test's last step on PostgreSQL (with TEST_DATABASE_URL): the log rewrite on the whole suite's events (./whole-suite.ts).
import { describeWholeSuiteCheck } from './whole-suite.ts';

describeWholeSuiteCheck('postgres');
