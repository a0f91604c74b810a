package sqltool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReadOnlyPrefix(t *testing.T) {
	for version, want := range map[string]string{
		"10.11.19-MariaDB-0+deb12u1": "SET STATEMENT tx_read_only=1 FOR ",
		"5.5.5-10.3.39-MariaDB":      "SET STATEMENT tx_read_only=1 FOR ",
		"11.0.6-MariaDB":             "SET STATEMENT tx_read_only=1 FOR ",
		"11.1.2-MariaDB":             "SET STATEMENT transaction_read_only=1 FOR ",
		"11.4.5-MariaDB-ubu2404":     "SET STATEMENT transaction_read_only=1 FOR ",
		"12.0.1-MariaDB":             "SET STATEMENT transaction_read_only=1 FOR ",
		"8.0.36":                     "",
		"5.7.44-log":                 "",
		"8.4.0-commercial":           "",
	} {
		assert.Equal(t, want, readOnlyPrefix(version), version)
	}
}
