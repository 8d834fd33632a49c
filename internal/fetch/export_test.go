package fetch

// What the external tests (package fetch_test) read of the package.

const MaxDetectRequests = maxDetectRequests
