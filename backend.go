package mnemo

// Backend is a Store with the optional interfaces it implements, found once
// by NewBackend rather than by a type assertion at every use. A nil field
// means the store lacks that ability; the services degrade as they did.
type Backend struct {
	Store                         // every backend; its methods are promoted
	Vectors      VectorStore      // semantic recall of memories
	State        StateStore       // runs, sessions, profiles (nil: the facade installs an in-process one)
	Life         LifecycleStore   // reflect, archive, restore, the ledger
	Events       EventStore       // L1 and L2
	EventVectors EventVectorStore // L3
	Insights     InsightStore     // L4 and L5
	Agents       AgentLister      // the agents of a tenant (GET /v1/agents)
	KeyTree      KeyTreeLister    // one level of the key tree (GET /v1/keys/tree)
	Contexts     ContextIndexer   // a message's context, once its replies arrive
}

// NewBackend checks s once for each optional interface. A store's type
// never changes, so once is as good as at every use.
func NewBackend(s Store) Backend {
	b := Backend{Store: s}
	b.Vectors, _ = s.(VectorStore)
	b.State, _ = s.(StateStore)
	b.Life, _ = s.(LifecycleStore)
	b.Events, _ = s.(EventStore)
	b.EventVectors, _ = s.(EventVectorStore)
	b.Insights, _ = s.(InsightStore)
	b.Agents, _ = s.(AgentLister)
	b.KeyTree, _ = s.(KeyTreeLister)
	b.Contexts, _ = s.(ContextIndexer)
	return b
}
