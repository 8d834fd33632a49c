package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookToken(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook"), []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse([]byte(`
sources:
  - name: acme
    url: https://status.acme.test
    hook_token: s3cret-token-0123456789
  - name: beta
    url: https://status.beta.test
    hook_token_file: hook
  - name: gamma
    url: https://status.gamma.test
`), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"s3cret-token-0123456789", "0123456789abcdef0123", ""} {
		if got := cfg.Sources[i].HookToken.Value(); got != want {
			t.Errorf("sources[%d].hook_token: got %q, want %q", i, got, want)
		}
	}
	if s := cfg.Sources[0].HookToken.String(); s != "<redacted>" {
		t.Errorf("prints as %q", s)
	}

	for _, tt := range []struct{ value, want string }{
		{"tiny1", "sources[0].hook_token (line 5): too short"},
		{"has space in it 0123456789", "may hold only letters"},
		{"slash/in/the/token/0123456789", "may hold only letters"},
	} {
		_, err := Parse([]byte("sources:\n  - name: acme\n    url: https://status.acme.test\n\n    hook_token: \""+tt.value+"\"\n"), filepath.Join(dir, "config.yaml"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.value, err, tt.want)
		} else if strings.Contains(err.Error(), tt.value) {
			t.Errorf("the error shows the token: %v", err)
		}
	}
}
