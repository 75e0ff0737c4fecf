class DMControlAction(Action):
    values: List[float]  # Continuous action values
