export { showsCreated } from '../transport/fromCredential';
