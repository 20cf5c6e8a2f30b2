/** Listing → Create, as the router sees it; the operation lives in ./create (description, pipeline, results). */
export { description } from './create/description';
export { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './create/settings';
export { execute } from './create/execute';
