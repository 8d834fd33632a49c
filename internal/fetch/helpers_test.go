package fetch

// What the package's own tests share besides fetchtest/fakehttp (its page and server):
// fetchtest itself builds on this package, so these tests cannot import it.

import "testing"

// mustClient builds a Client for tests, failing the test on error.
func mustClient(tb testing.TB, o ClientOptions) *Client {
	tb.Helper()
	c, err := NewClient(o)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
