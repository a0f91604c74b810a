// Command quickstart is the README's quick start, kept here so that it
// compiles with the module; a test checks that README.md shows this program
// word for word.
//
//	go run ./examples/quickstart
//	curl -s -X POST -d '{"text":"hello"}' localhost:8080/api/tools/text_upper/call
package main
