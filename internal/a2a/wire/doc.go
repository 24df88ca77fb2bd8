// Package wire holds the A2A protocol 1.0 JSON-RPC wire types: the shapes
// that cross the network between an A2A client and an A2A server, as the
// specification's Protobuf source of truth (a2a.proto, package lf.a2a.v1)
// serializes them in ProtoJSON: camelCase field names, enum values as their
// SCREAMING_SNAKE names (TASK_STATE_COMPLETED, ROLE_USER), oneofs as one
// present key among several.
//
// The package exists because the Go SDK served by the module proxy
// (github.com/a2aproject/a2a-go v0.3.3) speaks protocol 0.3 only, whose
// shapes differ (lower-case states, "kind" discriminators, slash method
// names). Both switchboard's A2A server (internal/a2a) and its A2A client for
// remote agents build on these types; they carry no behaviour beyond
// validation helpers, so either side can use them without importing the
// other.
package wire
