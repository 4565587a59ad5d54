"""unolan: UNO over the LAN from the terminal.

The import root for the project's four parts, which live in the repository's top-level
folders: ``unolan.engine`` (rules), ``unolan.protocol`` (the wire), ``unolan.server`` and
``unolan.client``.
"""

__version__ = "0.1.0"
