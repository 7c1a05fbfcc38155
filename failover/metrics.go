package failover

import "github.com/prometheus/client_golang/prometheus"

// metrics are the failover's Prometheus collectors; they always exist and
// are registered only when a Registerer is given.
type metrics struct {
	up       prometheus.Gauge
	outages  prometheus.Counter
	writes   prometheus.Counter
	reads    prometheus.Counter
	pending  prometheus.Gauge
	replayed prometheus.Counter
	replays  *prometheus.CounterVec // by result: ok, failed
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		up: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mnemo_store_up",
			Help: "1 while the database answers and the spool is replayed, 0 while writes go to the local spool.",
		}),
		outages: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mnemo_store_outages_total",
			Help: "Times the database was found unreachable and the local spool took over.",
		}),
		writes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mnemo_spool_writes_total",
			Help: "Memories written to the local spool while the database was unreachable.",
		}),
		reads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mnemo_spool_reads_total",
			Help: "Reads answered from the local spool (degraded) while the database was unreachable.",
		}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mnemo_spool_pending",
			Help: "Records in the local spool waiting to be replayed into the database.",
		}),
		replayed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mnemo_spool_replayed_total",
			Help: "Spooled records written into the database by replays (records it already had are not counted).",
		}),
		replays: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mnemo_spool_replays_total",
			Help: "Replays of the local spool into the database, by result.",
		}, []string{"result"}),
	}
	m.replays.WithLabelValues("ok")
	m.replays.WithLabelValues("failed")
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.up, m.outages, m.writes, m.reads, m.pending, m.replayed, m.replays} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
