package fakeshell

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Command returns a command that runs argv under o, started by self (the
// kit's binary) in OverlayRole. The caller sets its environment (the role
// variables are appended when it starts), standard streams and directory.
func (o Overlay) Command(self string, argv []string, env []string) (*exec.Cmd, error) {
	spec, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("bin overlay: %w", err)
	}
	cmd := exec.Command(self, argv...)
	cmd.Env = append(append([]string(nil), env...), RoleVariable+"="+OverlayRole, OverlayVariable+"="+string(spec))
	// A session of its own, as the runner starts any implementation.
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Setsid: true}
	if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
		// Unprivileged: a user namespace in which the runner is root, so
		// it may mount; files it creates still belong to the runner.
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	}
	return cmd, nil
}

// OverlayMain is the role: it sets the overlay up, then execs its
// arguments (or, for a check, exits 0). Exit status 125 means the overlay
// could not be set up.
func OverlayMain() int {
	var o Overlay
	err := json.Unmarshal([]byte(os.Getenv(OverlayVariable)), &o)
	os.Unsetenv(RoleVariable)
	os.Unsetenv(OverlayVariable)
	if err == nil {
		err = o.mount()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apexcheck bin overlay:", err)
		return 125
	}
	if o.Check {
		return 0
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "apexcheck bin overlay: no program to run")
		return 125
	}
	prog, err := exec.LookPath(os.Args[1])
	if err == nil {
		err = syscall.Exec(prog, os.Args[1:], os.Environ())
	}
	fmt.Fprintln(os.Stderr, "apexcheck bin overlay: exec:", err)
	return 127
}

func (o Overlay) mount() error {
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = filepath.EvalSymlinks("/bin"); err != nil {
			return err
		}
	}
	// Nothing mounted here may leak back into the runner's namespace.
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if o.Tmp != "" {
		// mode=1777, as /tmp: the program may create files there whatever
		// its user inside the namespace.
		opts := fmt.Sprintf("size=%d,mode=1777", o.TmpSize)
		if err := syscall.Mount("apexcheck", o.Tmp, "tmpfs", 0, opts); err != nil {
			return fmt.Errorf("mount a tmpfs of %d bytes on %s: %w", o.TmpSize, o.Tmp, err)
		}
		return nil
	}
	if err := syscall.Mount("apexcheck", o.Scratch, "tmpfs", 0, "mode=0755"); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", o.Scratch, err)
	}
	up, work := filepath.Join(o.Scratch, "up"), filepath.Join(o.Scratch, "work")
	for _, d := range []string{up, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	for name, src := range o.Files {
		dst := filepath.Join(up, name)
		if src == "" {
			// An overlay whiteout: a character device 0:0 hides the name.
			if err := syscall.Mknod(dst, syscall.S_IFCHR, 0); err != nil {
				return fmt.Errorf("hide %s: %w", name, err)
			}
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		fi, err := os.Stat(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return err
		}
		if err := os.Chmod(dst, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	// Read-only, as the directory is to every user but root, and to root
	// too where /usr is a read-only or sealed volume (macOS, image-based
	// distributions): whether a shell is usable must not depend on whether
	// the implementation could write it.
	opts := "lowerdir=" + dir + ",upperdir=" + up + ",workdir=" + work
	if err := syscall.Mount("overlay", dir, "overlay", syscall.MS_RDONLY, opts); err != nil {
		return fmt.Errorf("mount overlay on %s: %w", dir, err)
	}
	return nil
}
