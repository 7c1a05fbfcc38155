package mnemo

import (
	"context"
	"time"
)

// Modalities of event vectors.
const (
	ModalityText  = "text"
	ModalityImage = "image"
	ModalityAudio = "audio"
	ModalityVideo = "video"
)

// EventVector is one L3 vector of an event.
type EventVector struct {
	Modality string    `json:"modality"`         // text, image, audio or video
	Model    string    `json:"model"`            // the model that made it; search compares only vectors of one model
	Vector   []float32 `json:"vector,omitempty"` // nil: waits for the embedding worker
	// Input is what the vector is made of: the event's text or a media URI.
	Input string `json:"input,omitempty"`
}

// StoredEventVector is an L3 vector as stored: its event and how often
// searches returned it. A vector still waiting for the worker has none. A
// store may keep vectors compressed (sqlite: int8 with a scale), so the
// components read back are close to, not exactly, those written.
type StoredEventVector struct {
	EventID string `json:"event_id"`
	EventVector
	AccessCount int `json:"access_count"`
}

// EventVectorJob is a vector the worker still has to make.
type EventVectorJob struct {
	Scope
	EventID  string
	Modality string
	Model    string
	Input    string
}

// EventVectorQuery is a store's nearest-neighbour question: the vectors of
// one model nearest Vector, among the rows the filters leave.
type EventVectorQuery struct {
	Vector     []float32
	Model      string
	Modalities []string // none: all
	From, To   *time.Time
	Types      []string
	Sources    []string
	Limit      int
}

// EventVectorHit is one event a store found, by its best vector.
type EventVectorHit struct {
	EventID  string
	Modality string
	Score    float64 // cosine similarity
	Input    string
}

// EventVectorStore is an EventStore that keeps L3 vectors: its
// AppendEvents writes Event.Vectors in the append's transaction.
type EventVectorStore interface {
	EventStore
	// SearchEventVectors returns the events whose vectors (of q.Model) are
	// nearest q.Vector, best first, one hit per event.
	SearchEventVectors(ctx context.Context, scope Scope, q EventVectorQuery) ([]EventVectorHit, error)
	// EventVectorsOf returns the vectors of the events ids, by event and
	// modality.
	EventVectorsOf(ctx context.Context, scope Scope, ids []string) ([]StoredEventVector, error)
	// EventVectorModels returns the models of the scope's vectors by
	// modality.
	EventVectorModels(ctx context.Context, scope Scope) (map[string][]string, error)
	// TouchEventVectors counts a search's return of the events.
	TouchEventVectors(ctx context.Context, scope Scope, ids []string, at time.Time) error
	// PruneEventVectors drops the vectors of events older than before that
	// were returned fewer than minAccess times, and says how many; events
	// stay.
	PruneEventVectors(ctx context.Context, before time.Time, minAccess int) (int, error)
	// PendingEventVectors returns up to n vectors waiting to be made.
	PendingEventVectors(ctx context.Context, n int) ([]EventVectorJob, error)
	// SetEventVectors stores the vectors of jobs, made with model per job.
	SetEventVectors(ctx context.Context, jobs []EventVectorJob, vecs [][]float32) error
}
