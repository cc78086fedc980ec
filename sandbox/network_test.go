package sandbox

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// listener is the loopback "attacker": it counts TCP connections and UDP
// datagrams.
type listener struct {
	tcpPort, udpPort int
	hits             atomic.Int64
}

func newListener(t *testing.T) *listener {
	t.Helper()
	l := &listener{}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close(); pc.Close() })
	l.tcpPort = ln.Addr().(*net.TCPAddr).Port
	l.udpPort = pc.LocalAddr().(*net.UDPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.hits.Add(1)
			c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"))
			c.Close()
		}
	}()
	go func() {
		buf := make([]byte, 1500)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			l.hits.Add(1)
		}
	}()
	return l
}

// egress lists commands that each try to reach l.
func (l *listener) egress(t *testing.T) []string {
	cmds := []string{
		fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo hi >&3", l.tcpPort),
		fmt.Sprintf("echo leak > /dev/tcp/127.0.0.1/%d", l.tcpPort),
	}
	if _, err := exec.LookPath("curl"); err == nil {
		cmds = append(cmds, fmt.Sprintf("curl -sS --max-time 5 http://127.0.0.1:%d/", l.tcpPort))
	} else {
		t.Log("curl not installed")
	}
	if _, err := exec.LookPath("wget"); err == nil {
		cmds = append(cmds, fmt.Sprintf("wget -q -T 5 -t 1 -O- http://127.0.0.1:%d/", l.tcpPort))
	} else {
		t.Log("wget not installed")
	}
	return cmds
}

func TestNetworkBlocked(t *testing.T) {
	for _, b := range confined {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{})
			l := newListener(t)
			for _, c := range l.egress(t) {
				out := mustBeDenied(t, s, c)
				t.Logf("%s: %s", c, strings.TrimSpace(out))
			}
			// UDP: the network namespace has no route out (Landlock at
			// ABI < 10 does not cover UDP at all). Under bwrap the send
			// "succeeds" into the sandbox's own loopback: only the
			// listener's count matters.
			res := run(t, s, fmt.Sprintf("echo leak > /dev/udp/127.0.0.1/%d", l.udpPort))
			t.Logf("udp: exit %d %s", res.ExitCode, strings.TrimSpace(string(res.Output)))
			time.Sleep(50 * time.Millisecond) // let a stray datagram arrive
			if n := l.hits.Load(); n != 0 {
				t.Errorf("BREACH: the listener saw %d connections or datagrams", n)
			}
		})
	}
}

// TestNetworkOption is the control: with Network on, the same commands
// reach the listener, so the denials above are the sandbox's doing.
func TestNetworkOption(t *testing.T) {
	for _, b := range confined {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{Network: true})
			if st := s.Status(); !st.Network || strings.Contains(strings.Join(st.Layers, ","), "netns") || strings.Contains(strings.Join(st.Layers, ","), "tcp-deny") {
				t.Errorf("status with network on: %+v", st)
			}
			l := newListener(t)
			for _, c := range l.egress(t) {
				mustSucceed(t, s, c)
			}
			if l.hits.Load() == 0 {
				t.Error("no connection reached the listener with network on")
			}
			// Writes stay confined with network on.
			mustBeDenied(t, s, "echo x > /tmp/"+randName("outside-net"))
		})
	}
}

// TestLandlockTCPLayerAlone checks the second layer: without the network
// namespace, Landlock alone still denies TCP connect and bind.
func TestLandlockTCPLayerAlone(t *testing.T) {
	p := Probe()
	if p.Landlock < 4 {
		t.Skipf("Landlock ABI %d < 4 has no TCP rules", p.Landlock)
	}
	s := newSandbox(t, BackendLandlock, Options{noNetNS: true})
	if !strings.Contains(s.Status().Warning, "UDP") {
		t.Errorf("status without netns does not warn about UDP: %+v", s.Status())
	}
	l := newListener(t)
	for _, c := range l.egress(t) {
		mustBeDenied(t, s, c)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		mustBeDenied(t, s, `python3 -c 'import socket; socket.socket().bind(("127.0.0.1", 0))'`)
	}
	if n := l.hits.Load(); n != 0 {
		t.Errorf("BREACH: Landlock let %d TCP connections through", n)
	}
	// Known gap, logged rather than asserted: UDP at ABI < 10.
	res := run(t, s, fmt.Sprintf("echo leak > /dev/udp/127.0.0.1/%d", l.udpPort))
	time.Sleep(50 * time.Millisecond)
	t.Logf("UDP without netns (ABI %d): exit %d, listener hits %d", p.Landlock, res.ExitCode, l.hits.Load())
}

// TestLoopbackOption: a test server inside the sandbox works on its private
// loopback, and the host's listener still sees nothing.
func TestLoopbackOption(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: no portable way to listen from bash")
	}
	server := `python3 -c '
import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
threading.Thread(target=lambda: s.accept()[0].sendall(b"pong"), daemon=True).start()
c = socket.create_connection(s.getsockname()); print(c.recv(4).decode())'`
	for _, b := range confined {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{Loopback: true})
			if out := mustSucceed(t, s, server); !strings.Contains(out, "pong") {
				t.Errorf("loopback server printed %q", out)
			}
			l := newListener(t)
			for _, c := range l.egress(t) {
				mustBeDenied(t, s, c)
			}
			if n := l.hits.Load(); n != 0 {
				t.Errorf("BREACH: the host listener saw %d connections", n)
			}
		})
	}
	// Without the option, Landlock denies even the private loopback.
	s := newSandbox(t, BackendLandlock, Options{})
	mustBeDenied(t, s, server)
}
