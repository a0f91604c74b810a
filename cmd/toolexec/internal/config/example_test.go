package config_test

import (
	"fmt"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// Parse reports every problem of a file with its line.
func ExampleParse() {
	file := `
sources:
  db: {kind: sqlite, database: ":memory:"}
tools:
  find:
    kind: sqlite-sql
    source: db
    statement: SELECT * FROM t WHERE id = ?
    parameters:
      - {name: id, type: int, description: the id}
`
	_, err := config.Parse([]byte(file), "tools.yaml", "/tmp", nil)
	fmt.Println(err)
	// Output:
	// tools.yaml:5:3: tool "find" needs a description
	// tools.yaml:10:9: tool "find" parameters "id": type "int" is not one of string, integer, float, boolean, array, map
}
