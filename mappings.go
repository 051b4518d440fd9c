package apexcheck

import "embed"

//go:embed adapters/*/mapping.json
var mappings embed.FS

// MCPMappings holds the mappings shipped for MCP servers' shell tools,
// one per directory (codex/mapping.json), which `apexcheck --mcp CMD
// --mcp-mapping NAME` and `apexcheck mcp-bridge` find by name.
var MCPMappings = mustSubOf(mappings, "adapters")
