import nock from 'nock';

// Integration and end-to-end tests talk to servers they start on 127.0.0.1, and to nothing else.
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
