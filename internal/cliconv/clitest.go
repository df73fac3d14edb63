package cliconv

import "github.com/alecthomas/kong"

// Commands returns the paths of every command and subcommand of app
// (["sweep"], ["audit"], ...), walked from the parser's model so that a
// test over them covers a command added later.
func Commands(app *kong.Application) [][]string {
	var out [][]string
	var walk func(n *kong.Node, path []string)
	walk = func(n *kong.Node, path []string) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode {
				continue
			}
			p := append(append([]string(nil), path...), c.Name)
			out = append(out, p)
			walk(c, p)
		}
	}
	walk(app.Node, nil)
	return out
}
