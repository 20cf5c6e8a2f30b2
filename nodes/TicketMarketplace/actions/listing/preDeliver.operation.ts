/** Listing → Pre-Deliver Tickets, as the router sees it; the operation lives in ./preDeliver. */
export { description } from './preDeliver/description';
export { execute } from './preDeliver/execute';
