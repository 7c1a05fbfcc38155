// Package memory is the long-term memory service over a mnemo.Backend:
// writing memories through the Write Guard (MEM-10), embedding them, and
// recalling them by words, meaning, time and links (REC), with import,
// export and the inspector's reads and corrections beside.
//
// It is the layer the ways in reach long-term memory through; the stores
// it runs on are the backends (sqlite, postgres, files, inmem) and the
// root package's mnemo.Memory is the record it reads and writes.
package memory
