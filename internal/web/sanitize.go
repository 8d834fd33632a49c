package web

import "github.com/statuswatch/statuswatch/internal/sanitize"

// sanitizeHTML reduces vendor HTML to the shared vendor policy at render time, rather than
// trusting HTML the archive kept under an older policy.
func sanitizeHTML(s string) string { return sanitize.HTML(s) }
