package correlate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestVocabularyFile(t *testing.T) {
	v, err := ParseVocabulary(vocabularyFile)
	if err != nil {
		t.Fatal(err)
	}
	terms := v.Terms()
	if len(terms) < 250 {
		t.Errorf("got %d terms, want the providers, every region and the technologies (250 or more)", len(terms))
	}
	for _, want := range []string{"AWS", "GCP", "Azure", "Cloudflare", "Fastly", "Akamai", "DNS", "BGP", "CDN", "Kubernetes", "GKE",
		"load balancer", "certificate", "us-east-1", "europe-west2", "West Europe", "autoscaler", "health check"} {
		if !slices.Contains(terms, want) {
			t.Errorf("no term %q", want)
		}
	}
	// Every region of the three clouds implies its cloud.
	for _, term := range terms {
		for prefix, cloud := range map[string]string{"us-east-": "AWS", "eu-west-": "AWS", "europe-west": "GCP"} {
			if strings.HasPrefix(term, prefix) {
				if got := v.Find(term); !slices.Contains(got, cloud) {
					t.Errorf("Find(%q) = %v, want %s implied", term, got, cloud)
				}
			}
		}
	}
}

func TestParseVocabularyErrors(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"duplicate name":   {"AWS | Amazon\nAmazon Web Services | amazon\n", `line 2: name "amazon" already given on line 1`},
		"duplicate term":   {"AWS\nAWS\n", `line 2: term "AWS" given twice`},
		"unknown implied":  {"us-east-1 > AWS\n", `line 1: implied term "AWS" is not a term`},
		"empty name":       {"AWS | \n", `line 1: empty name`},
		"plural clash":     {"load balancer(s)\nload balancers\n", `line 2: name "load balancers" already given on line 1`},
		"empty term":       {" | x\n", "line 1: empty term"},
		"punctuation only": {"--\n", "line 1: empty name"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseVocabulary(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	v := Default()
	for name, tc := range map[string]struct {
		text string
		want []string
	}{
		"acronym any case":           {"dns resolution failing; DNS again; Dns", []string{"DNS"}},
		"not inside a word":          {"DNSSEC validation failures", []string{"DNSSEC"}},
		"not a prefix":               {"the dnsmasq daemon", nil},
		"region upper case":          {"Increased error rates in US-EAST-1", []string{"AWS", "us-east-1"}},
		"region not a longer one":    {"us-east-12 and us-east-10", nil},
		"aws zone letter":            {"instances in us-east-1a are impaired", []string{"AWS", "us-east-1"}},
		"gcp zone":                   {"outage in europe-west4-a", []string{"GCP", "europe-west4"}},
		"gcp and aws regions differ": {"us-east1 is not us-east-1", []string{"AWS", "GCP", "us-east-1", "us-east1"}},
		"alias":                      {"We know how much you rely on Google Cloud", []string{"GCP"}},
		"alias across a line":        {"rely on Google\nCloud", []string{"GCP"}},
		"not across a sentence":      {"Talk to Google. Cloud costs rose.", nil},
		"multi-word plural hyphen":   {"our load-balancers and Health Checks", []string{"load balancer", "health check"}},
		"longest name wins":          {"resources in East US 2", []string{"East US 2"}},
		"shorter one alone":          {"resources in East US.", []string{"East US"}},
		"implied":                    {"GKE node pools", []string{"GCP", "GKE", "Kubernetes"}},
		"exact case":                 {"IAM roles; i am here; iam", []string{"AWS", "IAM"}},
		"exact case not lower":       {"we iam", nil},
		"ordinary words":             {"the bedrock of our stripe design", nil},
		"k8s":                        {"our K8s clusters", []string{"Kubernetes"}},
		"punctuation names":          {"Pub/Sub and Let's Encrypt and 1.1.1.1", []string{"Cloudflare", "DNS", "Let's Encrypt", "certificate", "Pub/Sub", "GCP", "1.1.1.1"}},
		"nothing":                    {"Elevated errors across all models", nil},
		"unicode around":             {"«DNS»—Ébène", []string{"DNS"}},
	} {
		t.Run(name, func(t *testing.T) {
			got := v.Find(tc.text)
			want := slices.Clone(tc.want)
			slices.SortFunc(want, func(a, b string) int { return slices.Index(v.terms, a) - slices.Index(v.terms, b) })
			if !slices.Equal(got, want) {
				t.Errorf("Find(%q) = %q, want %q", tc.text, got, want)
			}
		})
	}
}

// TestFindRealTexts reads real incident texts (testdata/, each file saying where it is
// from) and checks the terms an SRE would name in them.
func TestFindRealTexts(t *testing.T) {
	for file, want := range map[string][]string{
		"aws-me-central-1-power.txt":   {"AWS", "me-central-1", "EC2", "EBS", "availability zone", "power outage"},
		"aws-me-south-1-route53.txt":   {"AWS", "me-south-1", "Route 53", "DNS", "availability zone", "power outage"},
		"aws-direct-connect-fr5.txt":   {"AWS", "Direct Connect", "Equinix"},
		"azure-west-us.txt":            {"Azure", "West US", "AKS", "Kubernetes", "ExpressRoute", "Azure Firewall", "Virtual WAN"},
		"gcp-europe-west4-cooling.txt": {"GCP", "europe-west4", "Google Cloud VMware Engine", "Bare Metal Solution", "cooling failure", "power outage"},
		"demo-postmortem.txt":          {"AWS", "us-east-1", "load balancer", "health check"},
		"synthetic-gke-postmortem.txt": {"GCP", "GKE", "Kubernetes", "europe-west2", "autoscaler", "health check", "load balancer", "DNS"},
	} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			_, text, _ := strings.Cut(string(data), "\n") // the first line says where it is from
			got := Default().Find(text)
			for _, w := range want {
				if !slices.Contains(got, w) {
					t.Errorf("%s: no %q in %q", file, w, got)
				}
			}
			for _, not := range []string{"us-east-1", "Cloudflare", "DNSSEC"} {
				if slices.Contains(got, not) && !slices.Contains(want, not) {
					t.Errorf("%s: found %q, which it does not name (all: %q)", file, not, got)
				}
			}
		})
	}
}

func TestFindBoundsText(t *testing.T) {
	long := strings.Repeat("x ", MaxTextBytes/2) + "us-east-1"
	if got := Default().Find(long); len(got) != 0 {
		t.Errorf("Find read past MaxTextBytes: %q", got)
	}
	many := make([]string, MaxTotalBytes/MaxTextBytes, MaxTotalBytes/MaxTextBytes+1)
	for i := range many {
		many[i] = strings.Repeat("y", MaxTextBytes)
	}
	if got := Default().Find(append(many, "DNS")...); len(got) != 0 {
		t.Errorf("Find read past MaxTotalBytes: %q", got)
	}
	if got := Default().Find(append(many[1:], "DNS")...); len(got) != 1 {
		t.Errorf("Find stopped before MaxTotalBytes: %q", got)
	}
}

// FuzzFind checks the matcher on any text: no panic, only terms of the vocabulary, in
// its order, the same answer twice, and a term found in a text is found again when the
// text is surrounded by spaces.
func FuzzFind(f *testing.F) {
	for _, s := range []string{"us-east-1a DNS", "East US 2", "Google\nCloud", "k8s", "1.1.1.1", "Let’s Encrypt", "\xff\xfe", "DNSSEC"} {
		f.Add(s)
	}
	v := Default()
	f.Fuzz(func(t *testing.T, s string) {
		got := v.Find(s)
		last := -1
		for _, term := range got {
			i := slices.Index(v.terms, term)
			if i < 0 || i <= last {
				t.Fatalf("Find(%q) = %q: not the vocabulary's terms in order", s, got)
			}
			last = i
		}
		if again := v.Find(s); !slices.Equal(got, again) {
			t.Fatalf("Find(%q) not deterministic: %q then %q", s, got, again)
		}
		if len(s) < MaxTextBytes-2 {
			if spaced := v.Find(" " + s + " "); !slices.Equal(got, spaced) {
				t.Fatalf("Find(%q) = %q, but with spaces around %q", s, got, spaced)
			}
		}
	})
}
