import nock from 'nock';

// Integration and end-to-end tests talk to servers they start on 127.0.0.1, and to nothing else.
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

// The interceptor is process-wide while each test file loads its own nock: release it after the file, or a later
// file in this worker would be answered by this file's nock.
afterAll(() => {
	nock.restore();
});
