// npm test's last step on PGlite: the log rewrite on the whole suite's events (./whole-suite.ts).
import { describeWholeSuiteCheck } from './whole-suite.ts';

describeWholeSuiteCheck('pglite');
