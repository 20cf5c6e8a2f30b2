/** Listing → Create, as the router sees it; the operation lives in ./create (description, pipeline, results). */
export { description, DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './create/description';
export { execute } from './create/execute';
