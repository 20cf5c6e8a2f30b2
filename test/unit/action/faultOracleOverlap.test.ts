/**
 * The fault oracle, two overlapping runs of one workflow (issue 18, case 9): each scenario runs Listing → Create
 * twice at once on one memory, and every invariant n8n's store allows holds (test/unit/action/faultOracleSuite.ts
 * says what a scenario is and which variables replay one).
 */
import { faultOracleSuite } from './faultOracleSuite';

faultOracleSuite(2);
