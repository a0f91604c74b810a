package bench

// Contenders returns every contender, the floor first and toolexec's
// surfaces next, in the order tables show them.
func Contenders() []Contender {
	return []Contender{
		Floor(),
		ToolexecREST(),
		ToolexecMCP(),
		ToolexecOXP(),
		GoSDK(),
		MCPGo(),
		MCPGoValidating(),
	}
}
