package importers

import (
	"io"
)

// The MCP reference memory server (@modelcontextprotocol/server-memory)
// keeps a knowledge graph in memory.json, one JSON object a line:
// {type: entity, name, entityType, observations} and {type: relation,
// from, to, relationType}. Each entity's observations become memories
// about it; each relation a link between the entities (IMP-8).

type mcpLine struct {
	Type         string   `json:"type"`
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
	From         string   `json:"from"`
	To           string   `json:"to"`
	RelationType string   `json:"relationType"`
}

// ReadMCPMemory streams the entities and relations of a memory.json.
func ReadMCPMemory(r io.Reader, entity func(Entity) error, relation func(Relation) error) error {
	return readLines(r, func(line int, raw []byte) error {
		var l mcpLine
		if err := decode(raw, &l); err != nil {
			return err
		}
		switch l.Type {
		case "entity":
			e := Entity{Name: clean(l.Name), Type: clean(l.EntityType)}
			if e.Name == "" {
				return errorf("an entity has no name")
			}
			for _, o := range l.Observations {
				if o = clean(o); o != "" {
					e.Observations = append(e.Observations, o)
				}
			}
			return entity(e)
		case "relation":
			rel := Relation{From: clean(l.From), To: clean(l.To), Type: clean(l.RelationType)}
			if rel.From == "" || rel.To == "" {
				return errorf("a relation needs from and to")
			}
			return relation(rel)
		}
		return errorf("type must be entity or relation, not %q", l.Type)
	})
}
