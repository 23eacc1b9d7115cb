// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title TestPriceFeed
/// @notice A Chainlink-style price feed (AggregatorV3Interface) for the local chains, so development and tests read
/// USD prices from a chain the way production reads Chainlink. The owner posts answers: `setAnswer` starts a new
/// round at the current block time; `setRoundData` writes any round (an old `updatedAt`, an incomplete round) so
/// tests can play a stale or broken feed. Not for real chains: the owner alone decides the price.
contract TestPriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
        uint80 answeredInRound;
    }

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error NotOwner(address caller);
    error NoDataPresent(uint80 roundId);

    address public immutable owner;
    uint8 public immutable decimals;
    uint256 public constant version = 4;
    string public description;

    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) {
        owner = msg.sender;
        decimals = decimals_;
        description = description_;
        _write(1, initialAnswer, block.timestamp, block.timestamp, 1);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    /// @notice Posts `answer` as a new, complete round updated now.
    function setAnswer(int256 answer) external onlyOwner {
        uint80 roundId = latestRound + 1;
        _write(roundId, answer, block.timestamp, block.timestamp, roundId);
    }

    /// @notice Writes round `roundId` exactly as given and makes it the latest (tests: stale or incomplete rounds).
    function setRoundData(
        uint80 roundId,
        int256 answer,
        uint256 startedAt,
        uint256 updatedAt,
        uint80 answeredInRound
    ) external onlyOwner {
        _write(roundId, answer, startedAt, updatedAt, answeredInRound);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    /// @notice Reverts for a round never written, as Chainlink's aggregators do.
    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round storage round = rounds[roundId];
        if (round.updatedAt == 0 && round.answeredInRound == 0) revert NoDataPresent(roundId);
        return (roundId, round.answer, round.startedAt, round.updatedAt, round.answeredInRound);
    }

    function _write(
        uint80 roundId,
        int256 answer,
        uint256 startedAt,
        uint256 updatedAt,
        uint80 answeredInRound
    ) private {
        rounds[roundId] = Round(answer, startedAt, updatedAt, answeredInRound);
        latestRound = roundId;
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
