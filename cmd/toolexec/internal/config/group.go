package config

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// group reads a document of kind group, the form `toolbox migrate`
// writes a toolset in: name, description and tools. It is a toolset like
// any other.
func (p *parser) group(nameNode, root *yaml.Node) {
	what := "group " + strconv.Quote(nameNode.Value)
	var tools *yaml.Node
	desc := ""
	p.fields(what, root, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "kind", "name":
		case "description":
			desc = p.str(what+" description", v)
		case "tools":
			tools = v
		default:
			return false
		}
		return true
	})
	if tools == nil {
		p.errorf(root, "%s needs tools", what)
		return
	}
	p.toolset(nameNode, tools)
	if desc != "" {
		if p.cfg.ToolsetDescriptions == nil {
			p.cfg.ToolsetDescriptions = map[string]string{}
		}
		p.cfg.ToolsetDescriptions[nameNode.Value] = desc
	}
}
