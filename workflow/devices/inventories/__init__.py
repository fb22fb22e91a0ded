"""Where the lab's devices come from: a Nornir hosts file (`static.py`, its shape checked by
`hosts_file.py`), a GNS3 project (`gns3.py`), a deployed containerlab lab (`containerlab.py`);
each node's netmiko type (`device_types.py`)."""
