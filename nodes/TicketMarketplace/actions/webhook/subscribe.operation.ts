/** Webhook → Subscribe, as the router sees it; the operation lives in ./subscribe (description, execute). */
export { description } from './subscribe/description';
export { execute, NEXT_STEP_WITH_ID, NEXT_STEP_WITHOUT_ID } from './subscribe/execute';
