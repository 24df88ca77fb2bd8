// Package tools holds the session tools as agents and MCP clients see
// them: one file per tool with its typed arguments, from which the JSON
// schema is generated (so a parameter is written once), its description,
// and the translation from arguments to one typed api.Service call.
//
// Decoding is strict and the same on every surface: snake_case aliases
// are folded into their camelCase names, unknown parameters are refused
// with the accepted list, wrong types name the parameter, and numeric
// parameters are clamped or refused by the limits of internal/api.
package tools
