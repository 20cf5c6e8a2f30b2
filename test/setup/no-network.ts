import nock from 'nock';

// Unit tests reach no host at all, loopback included: every request must be answered by a nock scope.
nock.disableNetConnect();

afterEach(() => {
	nock.abortPendingRequests();
});

afterAll(() => {
	nock.cleanAll();
});
