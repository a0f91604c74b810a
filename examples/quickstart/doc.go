// Command quickstart is the README's quick start, kept here so that it
// compiles with the module; a test checks that README.md shows this program
// word for word.
//
//	go run ./quickstart       (from the examples module; PORT sets the port, 8080 by default)
//	curl -s -X POST -d '{"text":"hello"}' localhost:8080/api/tools/text_upper/call
//
// It listens on localhost only: a quick start is for this machine.
package main
