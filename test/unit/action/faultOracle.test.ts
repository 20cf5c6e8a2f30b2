/**
 * The fault oracle, one run (issue 18): each scenario runs Listing → Create once, and every invariant holds
 * (test/unit/action/faultOracleSuite.ts says what a scenario is and which variables replay one).
 */
import { faultOracleSuite } from './faultOracleSuite';

faultOracleSuite(1);
