package config

import "github.com/statuswatch/statuswatch/internal/correlate"

// CorrelateOptions are correlation.window and every source's depends_on, as
// internal/correlate takes them.
func (c *Config) CorrelateOptions() correlate.Options {
	o := correlate.Options{Window: c.Correlation.Window, DependsOn: map[string][]string{}}
	if o.Window == 0 {
		o.Window = -1 // 0 in the config means no window (overlap only); 0 here means the default
	}
	for i := range c.Sources {
		if s := &c.Sources[i]; len(s.DependsOn) > 0 {
			o.DependsOn[s.Name] = s.DependsOn
		}
	}
	return o
}
