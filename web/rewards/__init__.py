"""Rewards for people: components of a step's reward (``components``), the charts
(``sparkline``, ``charts``), and the reward debugger of the Rewards tab (``review``, ``panel``).
"""
