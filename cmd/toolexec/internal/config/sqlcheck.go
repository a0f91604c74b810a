package config

import (
	"fmt"
	"strconv"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
)

// checkSQL reads a sql tool's statement on its source's dialect: it fills
// in the template, classifies the statement (Tool.Class), and decides
// whether the tool runs read-only (Tool.ReadOnly) and how it is announced.
// A tool declared read-only (readOnly: true, or annotations' readOnlyHint:
// true) whose statement writes or locks is a problem. A statement refused
// by sqlstmt.CheckReadOnly (one that writes or reads the server's files,
// acts on other sessions, or changes the pooled session, which the
// database's read-only mode does not stop) is a problem unless the tool
// is declared to write. Problems about the statement are reported at its
// line and column.
func (p *parser) checkSQL(t *Tool, src *Source) {
	what := "tool " + strconv.Quote(t.Name)
	line := p.stmtLine[t]
	if line == 0 {
		line = t.Line
	}
	d := Dialect(src.Kind)
	for _, prm := range t.Parameters {
		if prm.Escape != "" {
			p.problems = append(p.problems, Problem{File: p.file, Line: prm.Line, Message: fmt.Sprintf("%s: parameter %s: escape is only for templateParameters (a parameter is bound, never spliced, and needs no quoting)", what, p.show(prm.Name))})
		}
	}
	stmt := t.Statement
	if len(t.TemplateParameters) > 0 {
		if stmt = p.checkTemplate(what, line, d, t); stmt == "" {
			return
		}
	}
	t.Class = sqlstmt.Classify(d, stmt)
	declaredWrites := t.declaredReadOnly != nil && !*t.declaredReadOnly
	switch {
	case t.declaredReadOnly != nil && *t.declaredReadOnly && t.Class.Effect != sqlstmt.Reads:
		p.toolProblem(t, "statement", "%s: the tool is declared read-only (readOnly or readOnlyHint: true), but its statement %s (%s), which a read-only tool may not do: remove the declaration", what, t.Class.Effect, t.Class.Why)
		t.ReadOnly = true
	case t.declaredReadOnly != nil:
		t.ReadOnly = *t.declaredReadOnly
	default:
		t.ReadOnly = t.Class.Effect == sqlstmt.Reads
	}
	if !t.ReadOnly && t.Destructive == nil && !declaredWrites && t.Class.Effect == sqlstmt.Locks {
		f := false
		t.Destructive = &f
	}
	if !declaredWrites {
		if err := sqlstmt.CheckReadOnly(d, stmt); err != nil {
			p.toolProblem(t, "statement", "%s: the statement is refused: %v (a tool may, when the file says it writes: readOnly: false, or annotations: {readOnlyHint: false})", what, err)
		}
	}
	if d == sqlstmt.MySQL {
		q, n := sqlstmt.Placeholders(d, stmt)
		switch {
		case n > 0:
			p.toolProblem(t, "statement", "%s: mysql placeholders are ?, not $%d", what, n)
		case q != len(t.Parameters):
			p.toolProblem(t, "statement", "%s: the statement has %d ? placeholders but declares %d parameters", what, q, len(t.Parameters))
		}
	}
}
