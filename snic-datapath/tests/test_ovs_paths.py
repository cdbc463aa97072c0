"""Where an Open vSwitch's control socket is: the platform's fixed name, or a system's default one."""
from uno_platform.ovs import OvsInstance


def test_the_control_socket_is_the_fixed_name_when_there(tmp_path):
    (tmp_path / "ovs-vswitchd.ctl").touch()
    (tmp_path / "ovs-vswitchd.pid").write_text("4242\n")
    assert OvsInstance(tmp_path, None).appctl_socket == str(tmp_path / "ovs-vswitchd.ctl")


def test_a_system_switch_has_its_pid_in_the_control_sockets_name(tmp_path):
    """As a DPU's openvswitch-switch service starts it (ovs-appctl finds it the same way)."""
    (tmp_path / "ovs-vswitchd.pid").write_text("4242\n")
    assert OvsInstance(tmp_path, None).appctl_socket == str(tmp_path / "ovs-vswitchd.4242.ctl")


def test_without_a_running_switch_the_fixed_name_is_given(tmp_path):
    assert OvsInstance(tmp_path, None).appctl_socket == str(tmp_path / "ovs-vswitchd.ctl")
