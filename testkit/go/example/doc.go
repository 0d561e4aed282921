// Package example shows cnxsimtest with pulsar-client-go (example_test.go).
package example
