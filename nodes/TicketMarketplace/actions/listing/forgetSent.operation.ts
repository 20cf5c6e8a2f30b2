/** Listing → Clear Sent Listings History, as the router sees it; the operation lives in ./forgetSent. */
export { description } from './forgetSent/description';
export { execute } from './forgetSent/execute';
