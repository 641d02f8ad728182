"""Subcommands of the ``tablesense`` CLI; see ``tablesense.cli``."""
