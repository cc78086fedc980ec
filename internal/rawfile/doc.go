// Package rawfile opens and reads regular files without os.OpenFile's
// attempt to register them with the network poller: on Linux that costs
// an open of a regular file four fcntl calls and an epoll_ctl that fails
// (EPERM), half the system calls of reading a small file. The files a
// fresh `agent-lsp run` reads or creates before its answer (the endpoint
// cache, the transcript) go through here.
package rawfile
