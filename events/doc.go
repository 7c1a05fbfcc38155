// Package events is the event memory (docs/REQUIREMENTS.md, EVT): L1
// append-only events, L2 relations and the graph, L3 event vectors, L4
// summaries, L5 capabilities, replay and export, and the adaptive profile.
package events
