// Package all registers every platform: a program that polls or detects status pages
// imports it for its side effect. Adding a platform is adding its package under
// internal/fetch/platform and one import line here.
package all

import (
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/aws"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/azure"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/betterstack"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/cachet"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/feed"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/gcp"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/incidentio"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/instatus"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/slack"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/statusio"
	_ "github.com/statuswatch/statuswatch/internal/fetch/platform/statuspage"
)
