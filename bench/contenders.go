package bench

// Contenders returns every contender, the two floors first and toolexec's
// surfaces next, in the order tables show them. Null, the harness alone, is
// not a contender: it answers nothing correctly.
func Contenders() []Contender {
	return []Contender{
		Floor(),
		RESTFloor(),
		ToolexecREST(),
		ToolexecMCP(),
		ToolexecOXP(),
		GoSDK(),
		MCPGo(),
		MCPGoValidating(),
	}
}

// FloorOf names the floor c is compared with: the REST floor for the REST
// wire, the JSON-RPC floor for every other (OXP included: the issue's
// target for it is set against the JSON-RPC floor).
func FloorOf(c Contender) string {
	if c.Wire == WireREST {
		return RESTFloorName
	}
	return FloorName
}
