package lsp

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// DefaultParentPoll is how often the server checks that the editor
// process named by initialize's processId still runs, where it cannot be
// told when that process exits (see waitParentExit).
const DefaultParentPoll = 2 * time.Second

// watchParent closes s.parentGone when process pid is gone, as LSP asks:
// an editor that crashed may leave the pipes open (held by other
// children), and the server must not outlive it. Where the system can
// notify the exit (a pidfd on Linux) it waits without waking; elsewhere it
// polls, which wakes the process every ParentPoll.
func (s *Server) watchParent(pid int) {
	gone, ok := waitParentExit(s.ctx, pid)
	if !ok {
		s.log.Debug("Polling the editor process", "pid", pid)
		s.pollParent(pid)
		return
	}
	if gone {
		close(s.parentGone)
	}
}

func (s *Server) pollParent(pid int) {
	every := s.opts.ParentPoll
	if every <= 0 {
		every = DefaultParentPoll
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		p, err := os.FindProcess(pid)
		if err == nil {
			err = p.Signal(syscall.Signal(0))
		}
		if err != nil && !errors.Is(err, syscall.EPERM) {
			close(s.parentGone)
			return
		}
	}
}
