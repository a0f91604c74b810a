package sqltool

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/params"
)

// render returns the tool's statement with its template parameters'
// values spliced in: a string as a quoted identifier (the driver's
// identifier quoting: pgx.Identifier for PostgreSQL, backquotes for MySQL
// and SQLite, a quote inside doubled), an array of strings
// as such identifiers separated by ", ", an integer or float as a number,
// a boolean as TRUE or FALSE; a number or a boolean with a space on each
// side, as the statement was read when the file was loaded (a -5 after a
// "-" is not a PostgreSQL comment, a 1.5 before INTO is not glued to it). Strings must be among their parameter's
// allowed values (the file requires a list), checked here again although
// validation has refused any other: nothing else is ever spliced in.
func (t *Tool) render(args map[string]any) (string, error) {
	var b strings.Builder
	for _, part := range t.Cfg.Template.Parts {
		if part.Param < 0 {
			b.WriteString(part.Text)
			continue
		}
		p := t.Cfg.TemplateParameters[part.Param]
		v, err := params.Value(p, args)
		if err != nil {
			return "", err
		}
		if v == nil {
			return "", fmt.Errorf("argument %q is required: it is part of the statement", p.Name)
		}
		if part.Array {
			items, _ := v.([]any)
			if len(items) == 0 {
				return "", fmt.Errorf("argument %q needs at least one value: it is part of the statement", p.Name)
			}
			for i, e := range items {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := t.writeIdent(&b, p.Name, p.Items, e); err != nil {
					return "", err
				}
			}
			continue
		}
		switch v := v.(type) {
		case string:
			if err := t.writeIdent(&b, p.Name, p, v); err != nil {
				return "", err
			}
		case int64:
			b.WriteString(" " + strconv.FormatInt(v, 10) + " ")
		case float64:
			b.WriteString(" " + strconv.FormatFloat(v, 'g', -1, 64) + " ")
		case bool:
			b.WriteString(" " + strings.ToUpper(strconv.FormatBool(v)) + " ")
		default:
			return "", fmt.Errorf("argument %q is not a %s", p.Name, p.Type)
		}
	}
	return b.String(), nil
}

// writeIdent writes v, which must be a string allowed by p, as a quoted
// identifier.
func (t *Tool) writeIdent(b *strings.Builder, name string, p *config.Param, v any) error {
	s, ok := v.(string)
	if !ok || p == nil || !p.Allows(s) || len(p.AllowedValues) == 0 {
		return fmt.Errorf("argument %q: the value is not one of the allowed values", name)
	}
	if strings.IndexByte(s, 0) >= 0 || s == "" {
		return fmt.Errorf("argument %q: an identifier may not be empty or hold a NUL byte", name)
	}
	switch t.src.Kind {
	case config.KindPostgres:
		b.WriteString(pgx.Identifier{s}.Sanitize())
	default:
		// MySQL's quotes, and SQLite's too: SQLite reads a double-quoted
		// name that matches no column as a string literal, a backquoted
		// one always as an identifier.
		b.WriteString("`" + strings.ReplaceAll(s, "`", "``") + "`")
	}
	return nil
}
