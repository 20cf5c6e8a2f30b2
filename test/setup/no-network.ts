import nock from 'nock';

// Unit tests reach no host at all, loopback included: every request must be answered by a nock scope.
nock.disableNetConnect();

afterEach(() => {
	nock.abortPendingRequests();
});

afterAll(() => {
	nock.cleanAll();
	// The interceptor is process-wide while each test file loads its own nock: release it, or the next file in
	// this worker would be answered by this file's (now empty) nock and see every request refused.
	nock.restore();
});
