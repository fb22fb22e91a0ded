"""The deny-list as a policy per platform: rule tables by family (one module per platform
family), the matching of one line against a rule, and which rules a template may break."""
