package config

// Every platform registers itself with the fetch registry.
import _ "github.com/statuswatch/statuswatch/internal/fetch/all"
